// Small inline SVG line charts, drawn with DOM calls (no innerHTML, nothing inline for the CSP
// to refuse).

const SVG = 'http://www.w3.org/2000/svg';

/**
 * Draws values (numbers or null for a gap) as a polyline scaled to the largest value, with the
 * largest value as a label, into the element; replaces what it held.
 */
export function sparkline(element, values, { width = 240, height = 40, label = '' } = {}) {
  element.replaceChildren();
  const points = values.map((v, i) => [i, v]).filter(([, v]) => v !== null && Number.isFinite(v));
  if (points.length < 2) {
    const empty = document.createElement('span');
    empty.className = 'empty';
    empty.textContent = 'collecting samples';
    element.append(empty);
    return;
  }
  const max = Math.max(...points.map(([, v]) => v), 1e-9);
  const last = Math.max(values.length - 1, 1);
  const svg = document.createElementNS(SVG, 'svg');
  svg.setAttribute('width', width);
  svg.setAttribute('height', height);
  svg.setAttribute('viewBox', `0 0 ${width} ${height}`);
  svg.setAttribute('role', 'img');
  svg.setAttribute('aria-label', `${label} max ${format(max)}`);
  const line = document.createElementNS(SVG, 'polyline');
  line.setAttribute(
    'points',
    points
      .map(([i, v]) => `${((i / last) * (width - 2) + 1).toFixed(1)},${(height - 1 - (v / max) * (height - 12)).toFixed(1)}`)
      .join(' '),
  );
  const text = document.createElementNS(SVG, 'text');
  text.setAttribute('x', 2);
  text.setAttribute('y', 9);
  text.setAttribute('font-size', 9);
  text.setAttribute('fill', '#57606a');
  text.textContent = `max ${format(max)}`;
  svg.append(line, text);
  element.append(svg);
}

/** A number in a short form: 1234 as 1234, 12.345 as 12.3, 0.1234 as 0.12. */
export function format(value) {
  if (value >= 100) return Math.round(value).toString();
  if (value >= 10) return value.toFixed(1);
  return value.toFixed(2);
}
