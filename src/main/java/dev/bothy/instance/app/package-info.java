/**
 * The instance module's services: {@link dev.bothy.instance.app.CounterService} and {@link
 * dev.bothy.instance.app.InstanceService} implement the port over the outgoing repository ports
 * {@link dev.bothy.instance.app.CounterRepository} and {@link
 * dev.bothy.instance.app.InstanceRepository}.
 */
package dev.bothy.instance.app;
