/**
 * The instance module's pure rules: which counter names exist, which phase may use which counter,
 * SemVer precedence and the server version check. No I/O, no framework.
 */
package dev.bothy.instance.domain;
