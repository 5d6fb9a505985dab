package io.verglas.vector;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;

/**
 * How the live rows of a snapshot differ from those of an earlier index. Data files are
 * immutable, so a row (data file, position) the earlier index holds is the same row with the
 * same vector: its ordinal is kept. The earlier ordinals whose rows are gone (deleted, or their
 * file removed) are {@code deleted}; the snapshot's other rows are new and take the ordinals from
 * the earlier count up.
 *
 * @param byId a vector per graph node id (earlier ordinals, then new rows), null where deleted
 * @param ordered the snapshot's vectors in the order the extended graph numbers them: kept
 *     ordinals ascending, then new rows, as a dense renumbering of the surviving node ids lists
 *     them
 */
record IncrementalPlan(int baseCount, List<float[]> byId, BitSet deleted, int added,
    SnapshotVectors ordered) {

  static IncrementalPlan of(OrdinalMap base, SnapshotVectors target) {
    RowLookup lookup = new RowLookup(base);
    float[][] kept = new float[base.size()][];
    List<float[]> addedVectors = new ArrayList<>();
    List<RowRef> addedRows = new ArrayList<>();
    for (int i = 0; i < target.size(); i++) {
      RowRef row = target.rows().row(i);
      int ordinal = lookup.ordinalOf(row.file(), row.position());
      if (ordinal >= 0 && kept[ordinal] == null) {
        kept[ordinal] = target.vectors().get(i);
      } else {
        addedVectors.add(target.vectors().get(i));
        addedRows.add(row);
      }
    }
    BitSet deleted = new BitSet(base.size());
    List<float[]> vectors = new ArrayList<>(target.size());
    List<RowRef> rows = new ArrayList<>(target.size());
    for (int ordinal = 0; ordinal < kept.length; ordinal++) {
      if (kept[ordinal] == null) {
        deleted.set(ordinal);
      } else {
        vectors.add(kept[ordinal]);
        rows.add(base.row(ordinal));
      }
    }
    vectors.addAll(addedVectors);
    rows.addAll(addedRows);
    List<float[]> byId = new ArrayList<>(kept.length + addedVectors.size());
    byId.addAll(Arrays.asList(kept));
    byId.addAll(addedVectors);
    return new IncrementalPlan(kept.length, byId, deleted, addedVectors.size(),
        new SnapshotVectors(target.snapshotId(), target.sequenceNumber(), target.column(),
            vectors, OrdinalMap.of(rows)));
  }

  /** Rows added plus rows removed. */
  int changed() {
    return added + deleted.cardinality();
  }
}
