"use strict";

/** A greeting that says where it came from, so a test sees the dependency ran. */
function greet(name) {
  return `Hello, ${name}! (tack-test-greeting 1.0.0)`;
}

module.exports = { greet };
