package dev.idem.docs.samples.tracing;

import dev.idem.opentelemetry.TraceContextHeaders;
import dev.idem.outbox.Outbox;
import javax.sql.DataSource;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** The starter's tracing sample of docs/operations.md: an outbox with the starter's trace context headers. */
@Configuration(proxyBeanMethods = false)
public class TracedOutboxConfiguration {

    // sample: tracing-starter-outbox
    @Bean
    Outbox outbox(DataSource dataSource, TraceContextHeaders traceContext) {   // the starter's bean
        Outbox outbox = Outbox.builder(dataSource).headers(traceContext).build();
        outbox.migrate();
        return outbox;
    }
    // end sample
}
