package dev.idem.quarkus.deployment;

import dev.idem.jakarta.rest.Idempotent;
import dev.idem.quarkus.IdemBuildTimeConfig;
import dev.idem.quarkus.IdemBuildTimeConfig.StoreKind;
import dev.idem.quarkus.internal.IdemProducers;
import dev.idem.quarkus.internal.InboxProducer;
import dev.idem.quarkus.internal.JdbcStoreProducer;
import dev.idem.quarkus.internal.IdempotentBinding;
import io.quarkus.agroal.spi.JdbcDataSourceBuildItem;
import io.quarkus.arc.deployment.AdditionalBeanBuildItem;
import io.quarkus.arc.deployment.ValidationPhaseBuildItem;
import io.quarkus.arc.deployment.ValidationPhaseBuildItem.ValidationErrorBuildItem;
import io.quarkus.bootstrap.classloading.QuarkusClassLoader;
import io.quarkus.deployment.Capabilities;
import io.quarkus.deployment.Capability;
import io.quarkus.deployment.annotations.BuildProducer;
import io.quarkus.deployment.annotations.BuildStep;
import io.quarkus.deployment.builditem.CombinedIndexBuildItem;
import io.quarkus.deployment.builditem.FeatureBuildItem;
import io.quarkus.deployment.builditem.nativeimage.ReflectiveClassBuildItem;
import io.quarkus.resteasy.reactive.spi.DynamicFeatureBuildItem;
import io.quarkus.resteasy.reactive.spi.ExceptionMapperBuildItem;
import io.quarkus.runtime.configuration.ConfigurationException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.jboss.jandex.AnnotationInstance;
import org.jboss.jandex.AnnotationTarget;
import org.jboss.jandex.ClassInfo;
import org.jboss.jandex.DotName;
import org.jboss.jandex.IndexView;
import org.jboss.jandex.MethodInfo;
import org.jboss.jandex.MethodParameterInfo;

/**
 * The build steps of idem's Quarkus extension: the feature, the beans, the binding of idem-jakarta-rest's
 * filters to {@code @Idempotent} resource methods, and the refusal of the methods they cannot cover.
 * Quarkus runs them at build time; applications never call this class.
 */
public class IdemProcessor {
    static final String FEATURE = "idem";
    /**
     * idem-jakarta-rest's mapper of last resort: a covered request whose exception nothing maps fails its
     * execution there (the key is given back). Named, not referenced: its package is not exported.
     */
    static final String UNHANDLED_FAILURE_MAPPER = "dev.idem.jakarta.rest.internal.UnhandledFailureMapper";

    static final String REDIS_STORE = "dev.idem.redis.RedisIdempotencyStore";
    static final String REDIS_PRODUCER = "dev.idem.quarkus.internal.RedisStoreProducer";
    static final String STORE_PROPERTY = "quarkus.idem.store";

    static final String METER_REGISTRY = "io.micrometer.core.instrument.MeterRegistry";
    static final String MICROMETER_PRODUCER = "dev.idem.quarkus.internal.MicrometerListenerProducer";
    static final String OPENTELEMETRY_PRODUCER = "dev.idem.quarkus.internal.OpenTelemetryListenerProducer";

    private static final DotName IDEMPOTENCY_STORE = DotName.createSimple("dev.idem.spi.IdempotencyStore");
    private static final DotName IDEMPOTENT = DotName.createSimple(Idempotent.class.getName());
    private static final DotName NON_BLOCKING = DotName.createSimple("io.smallrye.common.annotation.NonBlocking");
    private static final DotName BLOCKING = DotName.createSimple("io.smallrye.common.annotation.Blocking");
    private static final DotName VIRTUAL_THREAD = DotName.createSimple("io.smallrye.common.annotation.RunOnVirtualThread");
    private static final DotName APPLICATION = DotName.createSimple("jakarta.ws.rs.core.Application");
    private static final DotName SUSPENDED = DotName.createSimple("jakarta.ws.rs.container.Suspended");
    private static final DotName SSE_SINK = DotName.createSimple("jakarta.ws.rs.sse.SseEventSink");
    private static final Set<DotName> HTTP_METHODS = Set.of("GET", "POST", "PUT", "DELETE", "PATCH", "HEAD", "OPTIONS").stream()
            .map(name -> DotName.createSimple("jakarta.ws.rs." + name)).collect(java.util.stream.Collectors.toSet());
    /** Return types whose method ends after it returns: the execution could not end on the request's thread. */
    private static final Set<DotName> ASYNC_RETURNS = Set.of(
            "io.smallrye.mutiny.Uni", "io.smallrye.mutiny.Multi", "java.util.concurrent.CompletionStage",
            "java.util.concurrent.CompletableFuture", "org.reactivestreams.Publisher", "java.util.concurrent.Flow$Publisher",
            "kotlinx.coroutines.flow.Flow").stream().map(DotName::createSimple).collect(java.util.stream.Collectors.toSet());

    @BuildStep
    FeatureBuildItem feature() {
        return new FeatureBuildItem(FEATURE);
    }

    @BuildStep
    AdditionalBeanBuildItem beans() {
        return AdditionalBeanBuildItem.builder().addBeanClasses(IdemProducers.class).setUnremovable().build();
    }

    /**
     * The store {@code quarkus.idem.store} names, else the JDBC store when the application has a default
     * datasource; and the inbox on that datasource, if it has one. The Redis producer is named, not
     * referenced: idem-redis is an optional dependency, on the class path only of applications that add it.
     *
     * @throws ConfigurationException naming {@code quarkus.idem.store} when the store it names cannot be
     *                                built: {@code jdbc} without a default datasource, {@code redis} without idem-redis
     */
    @BuildStep
    void store(IdemBuildTimeConfig config, List<JdbcDataSourceBuildItem> datasources, BuildProducer<AdditionalBeanBuildItem> beans) {
        boolean datasource = datasources.stream().anyMatch(JdbcDataSourceBuildItem::isDefault);
        StoreKind store = config.store().orElse(datasource ? StoreKind.JDBC : null);
        if (store == null) {
            // Nothing to build it on: the application's own IdempotencyStore bean, or requireStore's error.
        } else if (store == StoreKind.JDBC) {
            if (!datasource) {
                throw new ConfigurationException(STORE_PROPERTY + "=jdbc needs the application's default JDBC datasource, and it has none:"
                        + " configure one (quarkus.datasource.db-kind and a JDBC driver extension)", Set.of(STORE_PROPERTY));
            }
            beans.produce(AdditionalBeanBuildItem.builder().addBeanClasses(JdbcStoreProducer.class).setUnremovable().build());
        } else {
            if (!QuarkusClassLoader.isClassPresentAtRuntime(REDIS_STORE)) {
                throw new ConfigurationException(STORE_PROPERTY + "=redis needs dev.idem:idem-redis on the class path"
                        + " (a dependency of the application: idem-quarkus leaves it optional)", Set.of(STORE_PROPERTY));
            }
            beans.produce(AdditionalBeanBuildItem.builder().addBeanClasses(REDIS_PRODUCER).setUnremovable().build());
        }
        if (datasource) {
            beans.produce(AdditionalBeanBuildItem.builder().addBeanClasses(InboxProducer.class).setUnremovable().build());
        }
    }

    /**
     * Fails the build, naming {@code quarkus.idem.store}, when no bean is the engine's store: neither
     * the setting nor a default datasource chose one, and the application produces none of its own.
     */
    @BuildStep
    void requireStore(ValidationPhaseBuildItem validation, BuildProducer<ValidationErrorBuildItem> errors) {
        if (validation.getContext().beans().withBeanType(IDEMPOTENCY_STORE).isEmpty()) {
            errors.produce(new ValidationErrorBuildItem(new ConfigurationException("idem has no store: " + STORE_PROPERTY
                    + " is not set and the application has no default JDBC datasource. Configure one (quarkus.datasource.db-kind and"
                    + " a JDBC driver extension) for the JDBC store, set " + STORE_PROPERTY + "=redis and add dev.idem:idem-redis,"
                    + " or produce an IdempotencyStore bean", Set.of(STORE_PROPERTY))));
        }
    }

    /**
     * The engine's meters when the application has quarkus-micrometer, its span events when it has
     * quarkus-opentelemetry (each unless switched off). The producers are named, not referenced, so that
     * an application without Micrometer or OpenTelemetry never loads them.
     */
    @BuildStep
    void observability(Capabilities capabilities, IdemBuildTimeConfig config, BuildProducer<AdditionalBeanBuildItem> beans) {
        // io.quarkus.metrics is quarkus-micrometer's capability; the class tells it from another metrics extension.
        if (config.metrics().enabled() && capabilities.isPresent(Capability.METRICS)
                && QuarkusClassLoader.isClassPresentAtRuntime(METER_REGISTRY)) {
            beans.produce(AdditionalBeanBuildItem.builder().addBeanClasses(MICROMETER_PRODUCER).setUnremovable().build());
        }
        if (config.tracing().enabled() && capabilities.isPresent(Capability.OPENTELEMETRY_TRACER)) {
            beans.produce(AdditionalBeanBuildItem.builder().addBeanClasses(OPENTELEMETRY_PRODUCER).setUnremovable().build());
        }
    }

    @BuildStep
    DynamicFeatureBuildItem binding() {
        return new DynamicFeatureBuildItem(IdempotentBinding.class.getName(), true);
    }

    @BuildStep
    ExceptionMapperBuildItem unhandledFailures() {
        // For Throwable: the application's own, more specific mappers win.
        return new ExceptionMapperBuildItem(UNHANDLED_FAILURE_MAPPER, Throwable.class.getName(), null, true);
    }

    /**
     * Native image: the filters read {@code @Idempotent} through {@code ResourceInfo.getResourceMethod()},
     * which looks the method up by reflection. (Native mode is not tested.)
     */
    @BuildStep
    void reflectionOnAnnotatedResources(CombinedIndexBuildItem combinedIndex, BuildProducer<ReflectiveClassBuildItem> reflection) {
        Set<String> classes = new java.util.TreeSet<>();
        for (AnnotationInstance idempotent : combinedIndex.getIndex().getAnnotations(IDEMPOTENT)) {
            AnnotationTarget target = idempotent.target();
            if (target.kind() == AnnotationTarget.Kind.METHOD) {
                classes.add(target.asMethod().declaringClass().name().toString());
            } else if (target.kind() == AnnotationTarget.Kind.CLASS) {
                classes.add(target.asClass().name().toString());
            }
        }
        if (!classes.isEmpty()) {
            reflection.produce(ReflectiveClassBuildItem.builder(classes).methods().build());
        }
    }

    /**
     * Fails the build, naming each method, if an {@code @Idempotent} resource method cannot be covered: the
     * store calls block, so the filters must run on a worker thread, and the execution ends on the
     * request's thread, so the method must be synchronous.
     */
    @BuildStep
    void refuseAsynchronousMethods(CombinedIndexBuildItem combinedIndex, BuildProducer<ValidationErrorBuildItem> errors) {
        IndexView index = combinedIndex.getIndex();
        List<String> refused = new ArrayList<>();
        // @NonBlocking on the Application class makes that the default of every resource method.
        boolean nonBlockingByDefault = index.getAllKnownSubclasses(APPLICATION).stream().anyMatch(app -> app.hasDeclaredAnnotation(NON_BLOCKING));
        for (AnnotationInstance idempotent : index.getAnnotations(IDEMPOTENT)) {
            AnnotationTarget target = idempotent.target();
            if (target.kind() == AnnotationTarget.Kind.METHOD) {
                check(target.asMethod(), nonBlockingByDefault, refused);
            } else if (target.kind() == AnnotationTarget.Kind.CLASS) {
                for (MethodInfo method : target.asClass().methods()) {
                    if (!method.hasDeclaredAnnotation(IDEMPOTENT)) {
                        check(method, nonBlockingByDefault, refused);
                    }
                }
            }
        }
        if (!refused.isEmpty()) {
            errors.produce(new ValidationErrorBuildItem(new IllegalStateException("@Idempotent cannot cover " + String.join("; ", refused)
                    + ". idem's filters call the store, which blocks, and end the execution on the request's thread:"
                    + " make the method synchronous (return the entity or a Response) and blocking (no @NonBlocking).")));
        }
    }

    private static void check(MethodInfo method, boolean nonBlockingByDefault, List<String> refused) {
        if (HTTP_METHODS.stream().noneMatch(method::hasDeclaredAnnotation)) {
            return; // not a resource method (sub-resource locators are not covered by name binding either)
        }
        String name = method.declaringClass().name() + "#" + method.name();
        DotName returned = method.returnType().name();
        if (ASYNC_RETURNS.contains(returned)) {
            refused.add(name + " (it returns " + returned.withoutPackagePrefix() + ")");
        } else if (nonBlocking(method, nonBlockingByDefault)) {
            refused.add(name + " (it is @NonBlocking: it runs on the event loop)");
        } else {
            for (MethodParameterInfo parameter : method.parameters()) {
                if (parameter.hasDeclaredAnnotation(SUSPENDED) || parameter.type().name().equals(SSE_SINK)) {
                    refused.add(name + " (its response is sent later, through " + parameter.type().name().withoutPackagePrefix() + ")");
                    break;
                }
            }
        }
    }

    /** Quarkus' rule: the method's annotation, else its class's, else the application's default. */
    private static boolean nonBlocking(MethodInfo method, boolean nonBlockingByDefault) {
        ClassInfo type = method.declaringClass();
        if (method.hasDeclaredAnnotation(NON_BLOCKING)) {
            return true;
        }
        if (method.hasDeclaredAnnotation(BLOCKING) || method.hasDeclaredAnnotation(VIRTUAL_THREAD)) {
            return false;
        }
        if (type.hasDeclaredAnnotation(NON_BLOCKING)) {
            return true;
        }
        return nonBlockingByDefault && !type.hasDeclaredAnnotation(BLOCKING) && !type.hasDeclaredAnnotation(VIRTUAL_THREAD);
    }
}
