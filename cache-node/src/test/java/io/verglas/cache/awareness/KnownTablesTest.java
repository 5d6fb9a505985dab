package io.verglas.cache.awareness;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

class KnownTablesTest {
  /**
   * Random commits and creations of a few hundred tables, against a model of the strings: which
   * tables are known, which commits are news, and which tables are kept by name.
   */
  @Test
  void answersAsAMapOfNamesAndLocationsWould() {
    Random random = new Random(7);
    KnownTables known = new KnownTables(50);
    Map<String, String> model = new HashMap<>();
    LinkedHashMap<String, String> walked = new LinkedHashMap<>();
    for (int op = 0; op < 50_000; op++) {
      String table = "ns.t" + random.nextInt(500);
      String location = "s3://b/w/ns/" + table + "/metadata/0000" + random.nextInt(4)
          + "-x.metadata.json";
      assertThat(known.knows(table)).isEqualTo(model.containsKey(table));
      if (random.nextBoolean()) {
        boolean recorded = known.recordUnwalked(table, location);
        assertThat(recorded).isEqualTo(!model.containsKey(table));
        model.putIfAbsent(table, location);
      } else {
        boolean changed = known.putIfChanged(table, location);
        assertThat(changed).as("op %d: %s at %s", op, table, location)
            .isEqualTo(!location.equals(model.get(table)));
        model.put(table, location);
        if (changed) {
          walked.remove(table);
          walked.put(table, location);
          if (walked.size() > 50) {
            walked.remove(walked.keySet().iterator().next());
          }
        }
      }
    }
    assertThat(known.size()).isEqualTo(model.size());
    assertThat(known.snapshot()).containsExactlyEntriesOf(walked);
  }

  @Test
  void aTableRecordedWithoutDataIsKnownButNotKeptByName() {
    KnownTables known = new KnownTables(10);
    assertThat(known.recordUnwalked("ns.a", "s3://b/a/00000-x.metadata.json")).isTrue();
    assertThat(known.knows("ns.a")).isTrue();
    assertThat(known.snapshot()).isEmpty();
    assertThat(known.putIfChanged("ns.a", "s3://b/a/00000-x.metadata.json")).isFalse();
    assertThat(known.putIfChanged("ns.a", "s3://b/a/00001-y.metadata.json")).isTrue();
    assertThat(known.snapshot()).containsExactly(Map.entry("ns.a", "s3://b/a/00001-y.metadata.json"));
  }

  @Test
  void atItsBoundATableIsForgottenAndCountsAsNewAgain() {
    KnownTables known = new KnownTables(10, 100);
    for (int i = 0; i < 1_000; i++) {
      known.recordUnwalked("ns.t" + i, "loc" + i);
    }
    assertThat(known.size()).isEqualTo(100);
    int forgotten = 0;
    for (int i = 0; i < 1_000; i++) {
      forgotten += known.knows("ns.t" + i) ? 0 : 1;
    }
    assertThat(forgotten).isEqualTo(900);
  }

  @Test
  void hashesOfManyNamesAndLocationsDoNotCollide() {
    Set<Long> hashes = new HashSet<>();
    for (int i = 0; i < 200_000; i++) {
      hashes.add(KnownTables.hash("scale.t" + i));
      hashes.add(KnownTables.hash("s3://b/w/scale/t" + i + "/metadata/00000-" + i + ".metadata.json"));
    }
    assertThat(hashes).hasSize(400_000);
  }
}
