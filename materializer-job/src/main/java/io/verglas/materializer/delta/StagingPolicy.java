package io.verglas.materializer.delta;

import io.verglas.materializer.data.PartitionedDataWriter;
import java.util.HashSet;
import java.util.Set;

/**
 * Chooses how each table's next interval stages its rows ({@link PartitionedDataWriter.Staging}),
 * from what the table's last interval showed.
 *
 * <p>Why not always until the interval ends: then all of an interval's rows are encoded at the
 * barrier, while the source and the flush thread wait, and the staged rows outlive young
 * collections (measured in the materialize benchmark, where no key repeats within an interval:
 * a sixth fewer rows per second, for nothing). Why not always per batch: a table whose keys
 * change several times per checkpoint then writes every version and deletes all but the last,
 * and its readers pay for each dead row until compaction. So a table is staged until the
 * barrier while its last interval saw at least {@link #REPLACED_FRACTION} of its rows replaced
 * within the interval, and per batch otherwise. Both ways count those replacements: in place
 * while staged, or too late once encoded.
 *
 * <p>Memory: only tables that wrote rows since the last barrier are remembered; a table that
 * goes quiet is forgotten there and starts again per batch. Operators may stage
 * {@link IntervalStaging#ALWAYS always} or {@link IntervalStaging#NEVER never} instead.
 */
public final class StagingPolicy {
  /** The share of an interval's rows replaced within it from which staging to the end pays. */
  static final double REPLACED_FRACTION = 0.25;

  private final IntervalStaging mode;
  private final Set<String> untilComplete = new HashSet<>();
  private Set<String> wrote = new HashSet<>();

  public StagingPolicy(IntervalStaging mode) {
    this.mode = mode;
  }

  /** How the next interval of the table stages its rows. */
  public PartitionedDataWriter.Staging next(String tableUuid) {
    boolean staged = switch (mode) {
      case ALWAYS -> true;
      case NEVER -> false;
      case AUTO -> untilComplete.contains(tableUuid);
    };
    return staged ? PartitionedDataWriter.Staging.UNTIL_COMPLETE
        : PartitionedDataWriter.Staging.PER_BATCH;
  }

  /** Learns from an interval of the table that just ended. */
  public void ended(String tableUuid, PartitionedDataWriter.Replacements replacements) {
    wrote.add(tableUuid);
    if (replacements.replacedFraction() >= REPLACED_FRACTION) {
      untilComplete.add(tableUuid);
    } else {
      untilComplete.remove(tableUuid);
    }
  }

  /** At a barrier: forgets the tables that wrote nothing since the one before. */
  public void checkpointed() {
    untilComplete.retainAll(wrote);
    wrote = new HashSet<>();
  }

  /** How many tables are staged until their intervals end. */
  public int stagedTables() {
    return untilComplete.size();
  }
}
