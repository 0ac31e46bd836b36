/**
 * Not API: the mechanisms idem's JDBC modules share (the SQL loader, the migrator, the transaction
 * seam, table names, redaction). Exported only to idem-inbox, idem-outbox, idem-upserts and idem-kafka;
 * it changes without notice.
 */
package dev.idem.jdbc.internal;
