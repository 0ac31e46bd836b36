package dev.idem.spring.admin;

import dev.idem.admin.QuarantinedConsumer;
import dev.idem.inbox.Inbox;
import dev.idem.inbox.InboxHandler;
import dev.idem.jdbc.JdbcIdempotencyStore;
import dev.idem.outbox.Outbox;
import jakarta.servlet.Filter;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import java.security.Principal;
import java.util.Set;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.core.Ordered;

/**
 * An application with idem's admin API: a payments consumer whose handler writes a ledger row per
 * message, an outbox, and a stand-in for the application's authentication ({@code X-Test-User} names
 * the principal, {@code X-Test-Roles} its roles, as Spring Security's request wrapper would answer
 * {@code isUserInRole}).
 */
@SpringBootConfiguration
@EnableAutoConfiguration
public class AdminTestApplication {
    public static final String CONSUMER = "payments";

    /** One ledger row per processed message: a replay processed twice would fail on the primary key. */
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
    FilterRegistrationBean<Filter> testAuthentication() {
        Filter filter = (request, response, chain) -> {
            HttpServletRequest http = (HttpServletRequest) request;
            String user = http.getHeader("X-Test-User");
            Set<String> roles = http.getHeader("X-Test-Roles") == null ? Set.of() : Set.of(http.getHeader("X-Test-Roles").split(","));
            chain.doFilter(user == null ? request : new HttpServletRequestWrapper(http) {
                @Override
                public Principal getUserPrincipal() {
                    return () -> user;
                }

                @Override
                public boolean isUserInRole(String role) {
                    return roles.contains(role);
                }
            }, response);
        };
        FilterRegistrationBean<Filter> registration = new FilterRegistrationBean<>(filter);
        registration.setOrder(Ordered.HIGHEST_PRECEDENCE);
        return registration;
    }
}
