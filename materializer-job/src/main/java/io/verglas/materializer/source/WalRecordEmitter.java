package io.verglas.materializer.source;

import org.apache.flink.api.connector.source.SourceOutput;
import org.apache.flink.connector.base.source.reader.RecordEmitter;

/** Emits a row and records, in the split state, that rows up to it were emitted. */
final class WalRecordEmitter implements RecordEmitter<WalRow, WalRow, WalSplitState> {
  @Override
  public void emitRecord(WalRow row, SourceOutput<WalRow> output, WalSplitState state) {
    output.collect(row);
    state.emitted(row.ordinal);
  }
}
