package dev.idem.spi;

import java.util.Objects;

/** A lease an owner holds on a record: the record and the fencing token its claim returned. */
public record HeldLease(RecordKey id, long token) {
    public HeldLease {
        Objects.requireNonNull(id, "id is null");
    }
}
