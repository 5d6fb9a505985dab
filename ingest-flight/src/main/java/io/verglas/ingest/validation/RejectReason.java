package io.verglas.ingest.validation;

import java.util.Locale;

/**
 * Why a batch or call was refused, as counted by the {@code rejects} metric. Every refusal has
 * exactly one reason: the reason of the first problem the message lists.
 */
public enum RejectReason {
  /** A stream column does not fit the table (unknown, duplicate, mistyped, nested, ...). */
  SCHEMA,
  /** A primary-key column is missing, or a key cell is null. */
  NULL_KEY,
  /** A required cell is null or a required column is absent on an upsert row. */
  NULL_REQUIRED,
  /** An {@code _op} value other than 'U', 'D' or null, or a delete on an append-only table. */
  INVALID_OP,
  /**
   * A value the column cannot hold exactly (decimal precision, timestamp precision or range,
   * malformed UTF-8 in a string).
   */
  VALUE,
  /** A string or binary cell over the byte limit. */
  CELL_TOO_LARGE,
  /** A batch over the row or byte limit. */
  BATCH_TOO_LARGE,
  /** Arrow IPC that cannot be read. */
  MALFORMED,
  /** Batch app metadata that is not the documented JSON, or a bad idempotency key. */
  METADATA,
  /** The descriptor names no table or a table that does not exist. */
  UNKNOWN_TABLE,
  /** The table exists but was not created through Verglas. */
  UNMANAGED_TABLE,
  /** A DoPut refused because too many were in progress, in total or on its connection. */
  TOO_MANY_PUTS,
  /** A call without a valid bearer token. */
  UNAUTHENTICATED,
  /** A scoped token naming a table outside its scope, or asking to administer tables. */
  PERMISSION_DENIED,
  /** Anything else the client got wrong (bad action bodies, unknown actions). */
  OTHER;

  /** The metric label, e.g. {@code null_key}. */
  public String label() {
    return name().toLowerCase(Locale.ROOT);
  }
}
