package dev.idem.demo.lab;

import dev.idem.demo.gateway.CardGatewayMain;
import dev.idem.demo.proxy.FaultProxyMain;
import java.nio.file.Path;

/** The lab's programs started from the test class path: the real gateway and proxy, and the stand-in service. */
final class TestComponents {
    private TestComponents() {
    }

    static Components fromClassPath() {
        String classPath = System.getProperty("java.class.path");
        return new Components(
                JavaApp.mainClass("card gateway", JavaApp.SMALL_JVM, classPath, CardGatewayMain.class.getName()),
                JavaApp.mainClass("payments service (stand-in)", JavaApp.SMALL_JVM, classPath, StandInPaymentsService.class.getName()),
                JavaApp.mainClass("fault proxy", JavaApp.SMALL_JVM, classPath, FaultProxyMain.class.getName()));
    }

    /** The same, and the Kafka broker's class path that Maven wrote for this module. */
    static Components withKafka() {
        Components http = fromClassPath();
        return new Components(http.gateway(), http.paymentsService(), http.proxy(), null,
                Path.of(System.getProperty("kafka.broker.classpath", "target/kafka-broker.classpath")));
    }
}
