package dev.idem;

/**
 * An operation registered by name in an {@link OperationRegistry}: it gets its input as a value, so
 * that the engine can store the input with the claim and a {@link Completer} can run it again from
 * the store after its owner died. Like any {@link Operation}, it should run its foreign effects in
 * {@linkplain Execution#phase phases}: a completer resumes after the last finished one.
 */
@FunctionalInterface
public interface CompletableOperation<T> {
    StoredResponse run(Execution execution, T input) throws Exception;
}
