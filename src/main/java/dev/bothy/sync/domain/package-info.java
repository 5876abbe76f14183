/** The sync module's pure rules: what an appendable event is, and the resync rule of reads. */
package dev.bothy.sync.domain;
