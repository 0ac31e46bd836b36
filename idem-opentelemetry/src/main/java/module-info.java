/**
 * idem's OpenTelemetry bindings: spans and span events for the engine, the idempotent consumers and the
 * outbox publisher, and trace context carried in message headers.
 *
 * <p>The OpenTelemetry API jars are automatic modules; they are required transitively because the API
 * takes their types (an {@code OpenTelemetry}, a {@code Tracer}). The inbox and the outbox are optional
 * (an application uses the part whose module it has) and transitive where present, as the consumer
 * tracing and the outbox publisher implement their types.
 */
@SuppressWarnings({"requires-automatic", "requires-transitive-automatic"})
module dev.idem.opentelemetry {
    requires transitive dev.idem.core;
    requires transitive io.opentelemetry.api;
    requires transitive io.opentelemetry.context;
    requires static transitive dev.idem.inbox;
    requires static transitive dev.idem.outbox;

    exports dev.idem.opentelemetry;
}
