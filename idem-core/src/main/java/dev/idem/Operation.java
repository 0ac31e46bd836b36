package dev.idem;

/**
 * The work done at most once per key. It returns the response to store and replay. Work with
 * foreign side effects should run inside {@link Execution#phase phases} so that a retry after a
 * crash resumes after the last finished one instead of starting over.
 */
@FunctionalInterface
public interface Operation {
    StoredResponse run(Execution execution) throws Exception;
}
