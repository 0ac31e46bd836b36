/**
 * idem's model, engine and store SPI. Depends on the JDK only.
 *
 * <p>{@code dev.idem} is the API an application calls; {@code dev.idem.spi} is what a store
 * implements, with the helpers every module of idem shares (argument checks, listener calls).
 * Everything under {@code dev.idem.internal} is hidden.
 */
module dev.idem.core {
    exports dev.idem;
    exports dev.idem.spi;
}
