package dev.idem.spi;

import dev.idem.IdempotencyKey;
import dev.idem.Scope;
import java.util.Objects;

/** The identity of one record: a key within its scope. {@link #toString()} hides the key's value. */
public record RecordKey(Scope scope, IdempotencyKey key) {
    public RecordKey {
        Objects.requireNonNull(scope, "scope");
        Objects.requireNonNull(key, "key");
    }

    @Override
    public String toString() {
        return "RecordKey[scope=" + scope + ", key=" + key + "]";
    }
}
