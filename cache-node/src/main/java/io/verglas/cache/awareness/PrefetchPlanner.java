package io.verglas.cache.awareness;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Plans the prefetch of a compaction's replacement files from the table's heat: a pure function
 * (files and heat in, blocks out), executed by {@link Prefetcher}.
 *
 * <p>Design: heat is kept by (table, partition, column), which a rewrite preserves; projecting
 * it onto the replacement files means taking, in each new file, the column chunks whose
 * (partition, column) is at least {@code minHeat} hot. Chunks are taken hottest first, and each
 * adds the cache blocks covering it that the plan does not hold yet, until the byte budget
 * (counted in whole blocks, what the origin will be asked for) is spent: a small budget keeps
 * the hottest columns. Files without column chunks (ORC, Avro) are taken whole by their file
 * heat. Footers are not planned: the walk that found the files has read them already.
 */
final class PrefetchPlanner {
  /** A cache block of a file to read. */
  record Block(String location, long sizeBytes, long index, long offset, int length) {}

  /** Blocks in the order to read them, their bytes, and hot chunks left out by the budget. */
  record Plan(List<Block> blocks, long bytes, int chunksOverBudget) {
    static final Plan EMPTY = new Plan(List.of(), 0, 0);
  }

  private record Candidate(FileLayout file, long start, long end, double heat) {}

  private PrefetchPlanner() {}

  static Plan plan(List<FileLayout> newFiles, List<HeatLedger.Heat> heat, double minHeat,
      long budgetBytes, int blockSize) {
    Map<HeatCoordinates, Double> hot = new HashMap<>();
    for (HeatLedger.Heat h : heat) {
      if (h.heat() >= minHeat) {
        hot.put(h.at(), h.heat());
      }
    }
    if (hot.isEmpty()) {
      return Plan.EMPTY;
    }
    List<Candidate> candidates = candidates(newFiles, hot);
    candidates.sort(Comparator.comparingDouble(Candidate::heat).reversed());
    List<Block> blocks = new ArrayList<>();
    Set<String> planned = new HashSet<>();
    long bytes = 0;
    int overBudget = 0;
    for (Candidate c : candidates) {
      List<Block> needed = new ArrayList<>();
      long cost = 0;
      for (long index = c.start() / blockSize; index * blockSize < c.end(); index++) {
        if (!planned.contains(c.file().location() + '#' + index)) {
          long offset = index * blockSize;
          int length = (int) Math.min(blockSize, c.file().sizeBytes() - offset);
          needed.add(new Block(c.file().location(), c.file().sizeBytes(), index, offset, length));
          cost += length;
        }
      }
      if (bytes + cost > budgetBytes) {
        overBudget++;
        continue;
      }
      for (Block b : needed) {
        planned.add(b.location() + '#' + b.index());
        blocks.add(b);
      }
      bytes += cost;
    }
    return new Plan(List.copyOf(blocks), bytes, overBudget);
  }

  private static List<Candidate> candidates(List<FileLayout> files, Map<HeatCoordinates, Double> hot) {
    List<Candidate> candidates = new ArrayList<>();
    for (FileLayout file : files) {
      if (file.chunkCount() == 0) {
        Double heat = hot.get(file.wholeFile());
        if (heat != null && file.sizeBytes() > 0) {
          candidates.add(new Candidate(file, 0, file.sizeBytes(), heat));
        }
        continue;
      }
      for (int i = 0; i < file.chunkCount(); i++) {
        Double heat = hot.get(file.chunkColumn(i));
        long end = Math.min(file.chunkEnd(i), file.sizeBytes());
        if (heat != null && end > file.chunkStart(i)) {
          candidates.add(new Candidate(file, file.chunkStart(i), end, heat));
        }
      }
    }
    return candidates;
  }
}
