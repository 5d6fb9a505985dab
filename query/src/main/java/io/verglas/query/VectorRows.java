package io.verglas.query;

import io.verglas.vector.RowRef;
import io.verglas.vector.VectorSearchResult;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetReaders;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.parquet.Parquet;

/**
 * The rows of a vector search's hits, best first, each with its {@code _score}: each hit file is
 * read with the projection up to its last hit position (the hits are live rows of the snapshot:
 * the searcher already left deleted ones out), through the table's FileIO.
 */
final class VectorRows {
  static final String SCORE = "_score";

  private VectorRows() {}

  static List<Map<String, Object>> read(Table table, Schema projection, List<VectorSearchResult.Hit> hits,
      TableReads reads, ResultBudget budget) {
    Map<String, Map<Long, Record>> byFile = new HashMap<>();
    for (VectorSearchResult.Hit hit : hits) {
      byFile.computeIfAbsent(hit.row().file(), f -> new HashMap<>()).put(hit.row().position(), null);
    }
    byFile.forEach((file, rows) -> readFile(table, projection, file, rows, reads));
    List<Map<String, Object>> answer = new ArrayList<>(hits.size());
    for (VectorSearchResult.Hit hit : hits) {
      RowRef ref = hit.row();
      Map<String, Object> row = new LinkedHashMap<>();
      row.put(SCORE, hit.score());
      row.putAll(RowJson.row(byFile.get(ref.file()).get(ref.position())));
      budget.accept(row);
      answer.add(row);
    }
    return answer;
  }

  private static void readFile(Table table, Schema projection, String file, Map<Long, Record> rows,
      TableReads reads) {
    if (FileFormat.fromFileName(file) != FileFormat.PARQUET) {
      throw new QueryException(501, "Cannot read the rows of vector hits in " + file
          + ": only Parquet data files are read");
    }
    long last = rows.keySet().stream().mapToLong(Long::longValue).max().orElse(-1);
    try (CloseableIterable<Record> records = Parquet.read(table.io().newInputFile(file)).project(projection)
        .createReaderFunc(fileSchema -> GenericParquetReaders.buildReader(projection, fileSchema)).build()) {
      long position = 0;
      for (Record record : records) {
        if (rows.containsKey(position)) {
          rows.put(position, record.copy());
        }
        if (++position > last) {
          break;
        }
        if (position % 4096 == 0) {
          reads.checkDeadline();
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read " + file + ": " + e.getMessage(), e);
    }
    rows.forEach((position, record) -> {
      if (record == null) {
        throw new IllegalStateException("Cannot find row " + position + " of " + file);
      }
    });
  }
}
