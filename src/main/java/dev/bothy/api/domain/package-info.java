/** The pure rules of the HTTP API: token hashes and their constant-time comparison. */
package dev.bothy.api.domain;
