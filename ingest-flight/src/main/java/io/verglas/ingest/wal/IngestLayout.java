package io.verglas.ingest.wal;

import io.verglas.wal.WalLayout;
import java.util.Objects;

/**
 * Where an ingest stream keeps its segments and its own bookkeeping.
 *
 * <p>A stream {@code S} writes its segments into {@code lanes} WAL streams: lane 0 is {@code S}
 * itself, lane {@code i > 0} is {@code S.i} (so ingest stream ids may not contain '.', keeping
 * lane names unambiguous). Bookkeeping lives beside the WAL, outside its prefix so WAL readers
 * never list it: {@code <wal prefix>.ingest/S/epochs/<epoch>} (ownership claims, see
 * {@link StreamClaim}) and {@code <wal prefix>.ingest/S/keys/<lane>/<sequence>.json}
 * (idempotency key journals, see {@link KeyJournal}).
 */
public final class IngestLayout {
  private final WalLayout wal;
  private final String root;

  public IngestLayout(WalLayout wal) {
    this.wal = Objects.requireNonNull(wal, "wal");
    String walPrefix = wal.prefix();
    this.root = walPrefix.substring(0, walPrefix.length() - 1) + ".ingest/";
  }

  /** Checks an ingest stream id: a WAL stream id without '.', which marks lanes. */
  public static String checkStreamId(String streamId) {
    WalLayout.checkStreamId(streamId);
    if (streamId.indexOf('.') >= 0) {
      throw new IllegalArgumentException("Invalid stream id: '" + streamId + "' (letters, "
          + "digits, '_', '-'; '.' is reserved for the stream's lanes)");
    }
    return streamId;
  }

  public WalLayout wal() {
    return wal;
  }

  /** The WAL stream id of one lane of an ingest stream. */
  public String laneStreamId(String streamId, int lane) {
    if (lane < 0) {
      throw new IllegalArgumentException("Invalid lane: " + lane);
    }
    return lane == 0 ? streamId : streamId + "." + lane;
  }

  public String claimPrefix(String streamId) {
    return root + checkStreamId(streamId) + "/epochs/";
  }

  public String claimKey(String streamId, long epoch) {
    return claimPrefix(streamId) + String.format("%020d", epoch);
  }

  /** The epoch a claim key names, or -1 if the key is not a claim of the stream. */
  public long parseClaim(String streamId, String key) {
    String prefix = claimPrefix(streamId);
    if (!key.startsWith(prefix) || key.length() != prefix.length() + 20) {
      return -1;
    }
    try {
      return Long.parseLong(key.substring(prefix.length()));
    } catch (NumberFormatException e) {
      return -1;
    }
  }

  public String journalPrefix(String streamId) {
    return root + checkStreamId(streamId) + "/keys/";
  }

  public String journalKey(String streamId, String laneStreamId, long sequence) {
    return journalPrefix(streamId) + laneStreamId + "/" + String.format("%020d", sequence) + ".json";
  }
}
