/**
 * idem for Spring Boot 4: auto-configuration ({@link dev.idem.spring.IdemAutoConfiguration},
 * {@link dev.idem.spring.IdemWebAutoConfiguration}), the {@link dev.idem.spring.Idempotent}
 * annotation and {@code idem.*} properties ({@link dev.idem.spring.IdemProperties}); the Micrometer meters it
 * registers are idem-micrometer's ({@code dev.idem.micrometer.MicrometerIdemListener}).
 * {@code dev.idem.spring.internal} is not API.
 */
package dev.idem.spring;
