package dev.idem.demo.lab;

import java.nio.file.Path;

/** The three programs the lab runs as child processes. */
public record Components(JavaApp gateway, JavaApp paymentsService, JavaApp proxy) {
    public static final Path DEFAULT_GATEWAY_JAR = Path.of("demo", "card-gateway", "target", "card-gateway.jar");
    public static final Path DEFAULT_PROXY_JAR = Path.of("demo", "fault-proxy", "target", "fault-proxy.jar");

    public static Components fromJars(Path gatewayJar, Path serviceJar, Path proxyJar) {
        return new Components(
                JavaApp.jar("card gateway", JavaApp.SMALL_JVM, gatewayJar),
                JavaApp.jar("payments service", JavaApp.SERVICE_JVM, serviceJar),
                JavaApp.jar("fault proxy", JavaApp.SMALL_JVM, proxyJar));
    }

    /** @throws IllegalStateException naming the first program that is not built, and how to build it */
    public void check() {
        gateway.check("build it with ./idem gateway --help, or mvn -pl demo/card-gateway -am package");
        proxy.check("build it with ./idem proxy --help, or mvn -pl demo/fault-proxy -am package");
        paymentsService.check("build it with ./idem build, or mvn -pl demo/payments-service -am package; --service-jar runs another");
    }
}
