package dev.idem.spring;

import dev.idem.Idem;
import dev.idem.Sweeper;
import dev.idem.admin.AdminListener;
import dev.idem.admin.IdemAdmin;
import dev.idem.admin.IdemAdminServlet;
import dev.idem.admin.QuarantinedConsumer;
import dev.idem.jdbc.JdbcIdempotencyStore;
import dev.idem.outbox.Outbox;
import dev.idem.spring.internal.admin.IdemAdminEndpoint;
import dev.idem.spring.internal.admin.MicrometerAdminListener;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Map;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.web.servlet.ServletRegistrationBean;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.util.ClassUtils;

/**
 * The operators' side, with dev.idem:idem-admin on the class path: an {@link IdemAdmin} over idem's
 * store, every {@link QuarantinedConsumer}, {@link Outbox} and {@link Sweeper} bean; the actuator
 * endpoint {@code idem} (with spring-boot-actuator; exposed as actuator endpoints are, by
 * {@code management.endpoints.web.exposure.include}); and, with {@code idem.admin.console.enabled},
 * the web console at {@code idem.admin.console.path}. Actions are counted as {@code idem.admin.actions}
 * when the application has a {@link MeterRegistry}. See docs/operations.md.
 */
@AutoConfiguration(after = {IdemAutoConfiguration.class, IdemListenerAutoConfiguration.class})
@ConditionalOnClass(IdemAdmin.class)
@ConditionalOnBean(Idem.class)
@ConditionalOnBooleanProperty(name = "idem.enabled", matchIfMissing = true)
@EnableConfigurationProperties(IdemAdminProperties.class)
public class IdemAdminAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    public IdemAdmin idemAdmin(Idem idem, IdemAdminProperties properties, ApplicationContext context,
            ObjectProvider<QuarantinedConsumer> consumers, ObjectProvider<Sweeper> sweepers, ObjectProvider<AdminListener> listener) {
        IdemAdmin.Builder builder = IdemAdmin.builder().store(idem.store()).showContent(properties.isShowContent());
        if (idem.store() instanceof JdbcIdempotencyStore jdbc) {
            builder.durability(jdbc::durabilityFindings);
        }
        consumers.orderedStream().forEach(builder::consumer);
        sweepers.orderedStream().forEach(builder::sweeper);
        if (OutboxParts.PRESENT) {
            OutboxParts.addOutboxes(builder, context);
        }
        listener.ifAvailable(builder::listener);
        return builder.build();
    }

    /** The outboxes, in a class of their own so that idem-outbox stays optional. */
    static final class OutboxParts {
        static final boolean PRESENT = ClassUtils.isPresent("dev.idem.outbox.Outbox", IdemAdminAutoConfiguration.class.getClassLoader());

        static void addOutboxes(IdemAdmin.Builder builder, ApplicationContext context) {
            for (Map.Entry<String, Outbox> outbox : context.getBeansOfType(Outbox.class).entrySet()) {
                builder.outbox(outbox.getKey(), outbox.getValue());
            }
        }
    }

    /** Counts every action as {@code idem.admin.actions}, tagged by action and outcome. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(MeterRegistry.class)
    static class Meters {
        @Bean
        @ConditionalOnBean(MeterRegistry.class)
        @ConditionalOnMissingBean(AdminListener.class)
        AdminListener idemAdminMeters(MeterRegistry registry) {
            return new MicrometerAdminListener(registry);
        }
    }

    /** The actuator endpoint {@code idem}. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "org.springframework.boot.actuate.endpoint.annotation.Endpoint")
    static class Actuator {
        @Bean
        @ConditionalOnMissingBean
        IdemAdminEndpoint idemAdminEndpoint(IdemAdmin admin, IdemAdminProperties properties) {
            return new IdemAdminEndpoint(admin, properties.getRole(), properties.isReadOnly());
        }
    }

    /** The console and its JSON API, a servlet of its own; off unless {@code idem.admin.console.enabled}. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
    @ConditionalOnBooleanProperty(name = "idem.admin.console.enabled")
    static class Console {
        @Bean
        ServletRegistrationBean<IdemAdminServlet> idemAdminConsole(IdemAdmin admin, IdemAdminProperties properties) {
            String path = properties.getConsole().getPath();
            if (!path.startsWith("/") || path.endsWith("/") || path.contains("*")) {
                throw new IllegalArgumentException("idem.admin.console.path must start with / and end without one, was " + path);
            }
            IdemAdminServlet servlet = IdemAdminServlet.builder(admin).role(properties.getRole()).readOnly(properties.isReadOnly())
                    .console(true).build();
            ServletRegistrationBean<IdemAdminServlet> registration = new ServletRegistrationBean<>(servlet, path + "/*");
            registration.setName("idemAdminConsole");
            return registration;
        }
    }
}
