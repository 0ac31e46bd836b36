/**
 * idem for Spring Boot 4: auto-configuration ({@link dev.idem.spring.IdemAutoConfiguration},
 * {@link dev.idem.spring.IdemWebAutoConfiguration}), the {@link dev.idem.spring.Idempotent}
 * annotation, {@code idem.*} properties ({@link dev.idem.spring.IdemProperties}) and Micrometer
 * meters ({@link dev.idem.spring.MicrometerIdemListener}). {@code dev.idem.spring.internal} is not API.
 */
package dev.idem.spring;
