package io.verglas.cache.awareness;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class WatcherStateStoreTest {
  @TempDir
  Path dir;

  @Test
  void savesAndLoadsAndReplaces() throws IOException {
    WatcherStateStore store = new WatcherStateStore(dir.resolve("state"));
    assertThat(store.load()).isEmpty();

    store.save(new WatcherState("f", 1, Map.of("db.t", "s3://b/v1.metadata.json")));
    store.save(new WatcherState("f", 2, Map.of("db.t", "s3://b/v2.metadata.json")));
    assertThat(store.load()).contains(new WatcherState("f", 2, Map.of("db.t", "s3://b/v2.metadata.json")));
    try (Stream<Path> files = Files.list(dir.resolve("state"))) {
      assertThat(files.map(p -> p.getFileName().toString())).containsExactly(WatcherStateStore.FILE_NAME);
    }
  }

  @Test
  void anUnreadableFileIsMovedAsideAndTreatedAsAbsent() throws IOException {
    Files.createDirectories(dir);
    Files.writeString(dir.resolve(WatcherStateStore.FILE_NAME), "{\"format-version\":1,\"feed\"");
    WatcherStateStore store = new WatcherStateStore(dir);
    assertThat(store.load()).isEmpty();
    try (Stream<Path> files = Files.list(dir)) {
      assertThat(files.map(p -> p.getFileName().toString()))
          .singleElement().asString().startsWith(WatcherStateStore.FILE_NAME + ".unreadable-");
    }
  }
}
