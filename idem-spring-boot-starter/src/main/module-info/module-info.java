/**
 * idem's Spring Boot starter: auto-configuration of the store, the engine, the servlet filter, the WebFlux filter,
 * {@code @IdempotentMethod}, {@code @IdempotentListener}, the meters and the span events.
 *
 * <p>One descriptor for both Boot lines: idem-spring-boot-starter (Boot 4) and idem-spring-boot3-starter
 * (Boot 3) copy it from idem-spring-boot-starter/src/main/module-info, each filling in its line's Jackson
 * databind module (Jackson 3's, Jackson 2's) and Commons Logging module (commons-logging's, Spring 6's
 * spring-jcl): the {@code idem.module.*} properties of its pom.
 *
 * <p>{@code dev.idem.spring} is the API (annotations, properties, auto-configurations); the beans behind
 * them live in {@code dev.idem.spring.internal} and its sub-packages, which are not exported. Spring
 * creates those beans (and calls the auto-configurations' factory methods) by reflection, so every
 * package is opened to the Spring modules that do so. The Spring jars are automatic modules; the parts an
 * application may leave out (Redis, Spring MVC, Spring WebFlux, JDBC transactions, Kafka, RabbitMQ, Micrometer,
 * OpenTelemetry, the admin API and its actuator endpoint) are optional.
 */
@SuppressWarnings({"requires-automatic", "requires-transitive-automatic"})
module dev.idem.spring {
    requires transitive dev.idem.servlet;
    requires transitive dev.idem.jdbc;
    requires transitive dev.idem.inbox;
    requires transitive spring.boot;
    requires transitive spring.boot.autoconfigure;
    requires transitive spring.context;
    requires transitive spring.beans;
    requires transitive spring.core;
    requires transitive spring.aop;
    requires spring.expression;
    requires ${idem.module.commons-logging};

    requires static dev.idem.redis;
    requires static dev.idem.kafka;
    requires static dev.idem.nats;
    requires static io.nats.jnats;
    requires static transitive dev.idem.opentelemetry;
    requires static transitive micrometer.core;
    requires static transitive dev.idem.micrometer;
    requires static spring.web;
    requires static transitive spring.webmvc;
    requires static transitive dev.idem.webflux;
    requires static spring.webflux;
    requires static reactor.core;
    requires static transitive spring.jdbc;
    requires static transitive spring.tx;
    requires static spring.messaging;
    requires static spring.kafka;
    requires static spring.rabbit;
    requires static spring.amqp;
    requires static com.rabbitmq.client;
    requires static kafka.clients;
    requires static lettuce.core;
    requires static flyway.core;
    requires static liquibase.core;
    requires static transitive ${idem.module.jackson-databind};
    requires static transitive dev.idem.admin;
    requires static dev.idem.outbox;
    requires static spring.boot.actuator;

    exports dev.idem.spring;

    opens dev.idem.spring to spring.core, spring.beans, spring.context;
    opens dev.idem.spring.internal to spring.core, spring.beans, spring.context;
    opens dev.idem.spring.internal.admin to spring.core, spring.beans, spring.context, spring.boot.actuator;
    opens dev.idem.spring.internal.listener to spring.core, spring.beans, spring.context;
    opens dev.idem.spring.internal.listener.kafka to spring.core, spring.beans, spring.context;
    opens dev.idem.spring.internal.listener.rabbit to spring.core, spring.beans, spring.context;
}
