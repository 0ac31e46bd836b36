package dev.idem.docs.console;

import dev.idem.admin.QuarantinedConsumer;
import dev.idem.inbox.Inbox;
import dev.idem.inbox.InboxHandler;
import dev.idem.jdbc.JdbcIdempotencyStore;
import dev.idem.outbox.Outbox;
import jakarta.servlet.Filter;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import java.security.Principal;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.core.Ordered;

/**
 * The application the console's browser test drives: idem's starter on PostgreSQL with the console
 * on, a payments consumer whose handler writes one ledger row per message, and an outbox. Its
 * "authentication" signs every request in as an operator with the admin role: the stand-in for
 * Spring Security's login, which the browser would otherwise go through first.
 */
@SpringBootConfiguration
@EnableAutoConfiguration
public class ConsoleApplication {
    public static final String CONSUMER = "payments";

    public static final InboxHandler LEDGER = (c, m) -> {
        try (var ps = c.prepareStatement("INSERT INTO ledger (message_id) VALUES (?)")) {
            ps.setString(1, m.id());
            ps.executeUpdate();
        }
    };

    @Bean
    QuarantinedConsumer payments(Inbox inbox) {
        return new QuarantinedConsumer(CONSUMER, inbox.quarantine(), LEDGER);
    }

    @Bean
    Outbox orders(JdbcIdempotencyStore store) {
        Outbox outbox = Outbox.builder(store).build();
        outbox.migrate();
        return outbox;
    }

    @Bean
    FilterRegistrationBean<Filter> signedInOperator() {
        Filter filter = (request, response, chain) -> chain.doFilter(new HttpServletRequestWrapper((HttpServletRequest) request) {
            @Override
            public Principal getUserPrincipal() {
                return () -> "olga";
            }

            @Override
            public boolean isUserInRole(String role) {
                return "IDEM_ADMIN".equals(role);
            }
        }, response);
        FilterRegistrationBean<Filter> registration = new FilterRegistrationBean<>(filter);
        registration.setOrder(Ordered.HIGHEST_PRECEDENCE);
        return registration;
    }
}
