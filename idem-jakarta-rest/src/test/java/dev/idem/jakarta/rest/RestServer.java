package dev.idem.jakarta.rest;

import java.net.URI;
import java.util.Set;

/** A Jakarta REST runtime serving an application over real HTTP on a free local port. */
interface RestServer extends AutoCloseable {
    /** The application's base URI, ending without a slash. */
    URI base();

    @Override
    void close();

    /** Starts a runtime serving {@code singletons} (the feature, resources, mappers). */
    interface Runtime {
        RestServer start(Set<Object> singletons) throws Exception;
    }
}
