package dev.idem.spring;

import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.TestInstancePostProcessor;

/**
 * Starts one {@link TestApp} per backend for the whole test run and closes it at the end, so the HTTP
 * test classes share two applications instead of starting one each. Tests keep apart by using fresh
 * keys and items; counters are compared as differences.
 */
final class SharedApps implements TestInstancePostProcessor {
    private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(SharedApps.class);

    @Override
    public void postProcessTestInstance(Object testInstance, ExtensionContext context) {
        AppTest test = (AppTest) testInstance;
        Backend backend = test.backend();
        test.app = context.getRoot().getStore(NAMESPACE)
                .computeIfAbsent(backend, b -> TestApp.start(backend), TestApp.class);
    }
}
