/**
 * The JDBC foundation idem's own database modules are built on (the inbox, the outbox, the upserts and
 * windowed totals, the Kafka offset store), published so that they use it like any other user would,
 * and so that a component of an application's own can be built the same way:
 *
 * <ul>
 *   <li>{@link dev.idem.jdbc.support.SqlStatements}: named SQL statements per dialect, read from a
 *       component's resources and checked when the component is built;</li>
 *   <li>{@link dev.idem.jdbc.support.Migrator}: numbered migrations under a lock, with a history table
 *       per track;</li>
 *   <li>{@link dev.idem.jdbc.support.Transactions} and {@link dev.idem.jdbc.support.Isolation}: the one
 *       transaction seam (isolation level, commit, rollback, deadlock victims run again), and
 *       {@link dev.idem.jdbc.support.StoreCalls} over it, which reports a driver failure as a redacted
 *       {@link dev.idem.StoreException};</li>
 *   <li>{@link dev.idem.jdbc.support.Tables}: the default table names and the check and renaming of
 *       configured ones;</li>
 *   <li>{@link dev.idem.jdbc.support.ExpiryPurge}: a row-by-row purge in batches along an expiry
 *       index, each batch starting where the last one ended;</li>
 *   <li>{@link dev.idem.jdbc.support.FailureText} and {@link dev.idem.jdbc.support.MessageHeaders}: what
 *       a failure's text may say, and a message's headers as text in a column.</li>
 * </ul>
 *
 * The builder every component extends is {@link dev.idem.jdbc.JdbcComponentBuilder}. These types are
 * supported API, but they are the foundation's, not an application's everyday API: an application uses
 * the components (see docs/stores.md and docs/schema.md).
 */
package dev.idem.jdbc.support;
