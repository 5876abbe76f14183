/** The console's services: the sampler that fills the history from the modules' ports. */
package dev.bothy.console.app;
