package dev.idem.spring.methods;

import java.nio.file.Path;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The child JVM of the crash test: starts {@link MethodApplication} on {@code spring.datasource.url}
 * and calls {@link Payments#chargeAndShip} for one order, which writes the marker file after its
 * first phase and then never returns, until the test kills the process.
 *
 * <p>Arguments: the JDBC URL, the order id, the marker file.
 */
public final class PaymentsChild {
    private PaymentsChild() {
    }

    public static void main(String[] args) throws Exception {
        ConfigurableApplicationContext context = MethodApplication.start("--spring.datasource.url=" + args[0],
                "--spring.main.banner-mode=off", "--logging.level.root=WARN");
        Payments payments = context.getBean(Payments.class);
        payments.hangBeforeShipping(Path.of(args[2]));
        payments.chargeAndShip(args[1]);
    }
}
