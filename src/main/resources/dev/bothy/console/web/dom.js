// DOM helpers shared by the console's modules. Text goes in with textContent only: the data comes
// from the database and must never be parsed as markup.

/** The element with this id. */
export const $ = (id) => document.getElementById(id);

/** A table cell holding text, with an optional class. */
export function cell(text, className) {
  const td = document.createElement('td');
  td.textContent = text === null || text === undefined ? '' : String(text);
  if (className) td.className = className;
  return td;
}

/** A button that runs the action when clicked; disabled unless enabled is true. */
export function button(label, action, { enabled = true, className = '' } = {}) {
  const b = document.createElement('button');
  b.type = 'button';
  b.textContent = label;
  if (className) b.className = className;
  b.disabled = !enabled;
  b.addEventListener('click', action);
  return b;
}

/** A capped count as a user should read it: "10000+" when the count stopped at its cap. */
export function countText(count, noun) {
  return `${count.capped ? `${count.value}+` : count.value} ${noun}${count.capped ? ` (count stops at ${count.cap})` : ''}`;
}
