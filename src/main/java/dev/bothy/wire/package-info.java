/**
 * The assembly: the Dropwizard application, its commands, the configuration, the admin endpoints
 * and the wiring of every module. Nothing depends on this package.
 */
package dev.bothy.wire;
