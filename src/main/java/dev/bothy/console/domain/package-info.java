/** The console's pure rules: the history ring buffer and the rates drawn from it. */
package dev.bothy.console.domain;
