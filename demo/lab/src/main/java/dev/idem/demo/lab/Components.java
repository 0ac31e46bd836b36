package dev.idem.demo.lab;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The programs the lab runs as child processes: the gateway, the payments service and the fault
 * proxy for every scenario; for the messaging scenarios also the ledger consumer, and a Kafka broker
 * started from the class path in {@code kafkaClassPathFile} (written by Maven beside the lab's jar).
 *
 * @param ledgerConsumer     null when no messaging scenario can run
 * @param kafkaClassPathFile null when no messaging scenario can run
 */
public record Components(JavaApp gateway, JavaApp paymentsService, JavaApp proxy, JavaApp ledgerConsumer, Path kafkaClassPathFile) {
    public static final Path DEFAULT_GATEWAY_JAR = Path.of("demo", "card-gateway", "target", "card-gateway.jar");
    public static final Path DEFAULT_PROXY_JAR = Path.of("demo", "fault-proxy", "target", "fault-proxy.jar");

    /** The programs of the HTTP scenarios only. */
    public Components(JavaApp gateway, JavaApp paymentsService, JavaApp proxy) {
        this(gateway, paymentsService, proxy, null, null);
    }

    public static Components fromJars(Path gatewayJar, Path serviceJar, Path proxyJar, Path ledgerJar, Path kafkaClassPathFile) {
        return new Components(
                JavaApp.jar("card gateway", JavaApp.SMALL_JVM, gatewayJar),
                JavaApp.jar("payments service", JavaApp.SERVICE_JVM, serviceJar),
                JavaApp.jar("fault proxy", JavaApp.SMALL_JVM, proxyJar),
                JavaApp.jar("ledger consumer", JavaApp.SMALL_JVM, ledgerJar),
                kafkaClassPathFile);
    }

    /**
     * @param scenarios whether scenarios run (the gateway, the service and the proxy)
     * @param messaging whether messaging scenarios run (also the ledger consumer and a broker)
     * @param kafka     whether pattern rows run on the lab's broker
     * @throws IllegalStateException naming the first program that is not built, and how to build it
     */
    public void check(boolean scenarios, boolean messaging, boolean kafka) {
        if (scenarios) {
            gateway.check("build it with ./idem gateway --help, or mvn -pl demo/card-gateway -am package");
            proxy.check("build it with ./idem proxy --help, or mvn -pl demo/fault-proxy -am package");
            paymentsService.check("build it with ./idem build, or mvn -pl demo/payments-service -am package; --service-jar runs another");
        }
        if (messaging) {
            if (ledgerConsumer == null || kafkaClassPathFile == null) {
                throw new IllegalStateException("the messaging scenarios need the ledger consumer and a Kafka broker, and none was given");
            }
            ledgerConsumer.check("build it with ./idem build, or mvn -pl demo/ledger-consumer -am package");
        }
        if (messaging || kafka) {
            if (kafkaClassPathFile == null) {
                throw new IllegalStateException("the Kafka rows need a Kafka broker's class path, and none was given");
            }
            if (!Files.isRegularFile(kafkaClassPathFile)) {
                throw new IllegalStateException("the Kafka broker's class path file " + kafkaClassPathFile
                        + " is missing; build it with ./idem build, or mvn -pl demo/lab -am package");
            }
        }
    }

    /** The Kafka broker's class path, as Maven wrote it. */
    String kafkaClassPath() {
        try {
            return Files.readString(kafkaClassPathFile, StandardCharsets.UTF_8).trim();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the Kafka broker's class path from " + kafkaClassPathFile, e);
        }
    }
}
