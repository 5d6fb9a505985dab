package io.verglas.protocol;

/**
 * The names both sides of the Flight ingest protocol agree on: the ingest server and the SDK
 * (and any other Flight client, e.g. pyarrow) use exactly these strings.
 *
 * <ul>
 *   <li>A table is addressed by a path descriptor {@code [namespace levels..., table]}.
 *   <li>Each {@code DoPut} batch may carry app metadata {@code {"idempotencyKey":"..."}}
 *       ({@link BatchMetadataParser}); each acknowledgement is a {@code PutResult} whose app
 *       metadata is a {@link PutAck} ({@link PutAckParser}), sent in batch order once the WAL
 *       segment holding the batch is durable.
 *   <li>The optional {@value #OP_COLUMN} column says what a row does: {@value #OP_UPSERT}
 *       (also when null or absent) or {@value #OP_DELETE} (only the primary key is needed).
 * </ul>
 */
public final class IngestProtocol {
  public static final String ACTION_CREATE_TABLE = "create-table";
  /** Adds nullable columns: body {@link AlterTableRequestParser} JSON; result like create-table. */
  public static final String ACTION_ALTER_TABLE = "alter-table";
  /** Drops a Verglas table: body {@link DropTableRequest} JSON. */
  public static final String ACTION_DROP_TABLE = "drop-table";
  public static final String ACTION_HEALTH = "health";
  /** The server's metrics in the Prometheus text format. */
  public static final String ACTION_METRICS = "metrics";

  /** Same name as {@code io.verglas.arrow.ArrowSchemas#OP_COLUMN}. */
  public static final String OP_COLUMN = io.verglas.arrow.ArrowSchemas.OP_COLUMN;
  public static final String OP_UPSERT = "U";
  public static final String OP_DELETE = "D";

  /** Arrow schema metadata returned by GetSchema: the primary key as a JSON array of names. */
  public static final String SCHEMA_PRIMARY_KEY = "verglas.primary-key";
  /** Arrow schema metadata returned by GetSchema: the Iceberg schema id the schema reflects. */
  public static final String SCHEMA_ID = "verglas.schema-id";
  /** Arrow schema metadata returned by GetSchema: the Iceberg table uuid. */
  public static final String SCHEMA_TABLE_UUID = "verglas.table-uuid";
  /**
   * How the description of a DoPut refused for load (RESOURCE_EXHAUSTED: too many puts in
   * progress) begins. Nothing of such a call was read, so a client may send it again once one
   * of the puts has ended; a batch over the size limit is refused with another description.
   */
  public static final String REFUSED_TOO_MANY_PUTS = "Cannot accept DoPut: ";

  private IngestProtocol() {}
}
