/**
 * Bothy's configuration classes: the YAML sections with their keys, defaults and validation.
 *
 * <p>Every key is documented with {@link dev.bothy.wire.config.Doc}; {@code
 * docs/operations/configuration.md} is generated from these classes.
 */
package dev.bothy.wire.config;
