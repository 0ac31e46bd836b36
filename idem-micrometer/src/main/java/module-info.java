/**
 * idem's Micrometer meters: {@link dev.idem.micrometer.MicrometerIdemListener}, the one
 * {@code IdemListener} the Spring Boot starters and the Quarkus extension register on the application's
 * {@code MeterRegistry}, and that an application building its own engine passes to
 * {@code Idem.Builder.listener}.
 *
 * <p>Micrometer's jar is an automatic module, required transitively because the listener's constructor
 * takes its {@code MeterRegistry}.
 */
@SuppressWarnings({"requires-automatic", "requires-transitive-automatic"})
module dev.idem.micrometer {
    requires transitive dev.idem.core;
    requires transitive micrometer.core;

    exports dev.idem.micrometer;
}
