/** idem's database-side patterns over JDBC: natural-key upserts and windowed totals recomputed and overwritten. */
module dev.idem.upserts {
    requires transitive dev.idem.jdbc;

    exports dev.idem.upserts;
}
