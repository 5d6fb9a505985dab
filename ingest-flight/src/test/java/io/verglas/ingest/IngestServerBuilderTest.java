package io.verglas.ingest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.verglas.store.ObjectStoreEndpoint;
import java.net.URI;
import java.time.Duration;
import org.apache.iceberg.inmemory.InMemoryCatalog;
import org.junit.jupiter.api.Test;

class IngestServerBuilderTest {
  private static final ObjectStoreEndpoint STORE = new ObjectStoreEndpoint(
      URI.create("http://127.0.0.1:9"), "us-east-1", "a", "b", "bucket");

  private static IngestServer.Builder complete() {
    return IngestServer.builder().catalog(new InMemoryCatalog()).objectStore(STORE)
        .streamId("s1").token("t");
  }

  @Test
  void requiresCatalogStoreStreamAndToken() {
    assertThatThrownBy(() -> IngestServer.builder().build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("Cannot build ingest server: catalog is not set");
    assertThatThrownBy(() -> IngestServer.builder().catalog(new InMemoryCatalog()).objectStore(STORE)
            .streamId("s1").build())
        .hasMessage("Cannot build ingest server: token is not set (unauthenticated ingest is not "
            + "supported)");
    assertThat(complete().build()).isNotNull();
  }

  @Test
  void checksValuesAsTheyAreSetAndOnlyOnce() {
    assertThatThrownBy(() -> IngestServer.builder().streamId("no/slash"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("Invalid stream id: 'no/slash'");
    assertThatThrownBy(() -> IngestServer.builder().streamId("lane.1"))
        .isInstanceOf(IllegalArgumentException.class).hasMessage("Invalid stream id: 'lane.1' "
            + "(letters, digits, '_', '-'; '.' is reserved for the stream's lanes)");
    assertThatThrownBy(() -> IngestServer.builder().lanes(0)).hasMessage("Invalid lanes: 0 (1 to 64)");
    assertThatThrownBy(() -> IngestServer.builder().maxCellBytes(0)).hasMessage("Invalid max cell bytes: 0");
    assertThatThrownBy(() -> IngestServer.builder().idempotencyWindow(Duration.ZERO))
        .hasMessage("Invalid idempotency window: PT0S");
    assertThatThrownBy(() -> IngestServer.builder().port(70000)).hasMessage("Invalid port: 70000");
    assertThatThrownBy(() -> IngestServer.builder().flushBytes(0)).hasMessage("Invalid flush bytes: 0");
    assertThatThrownBy(() -> IngestServer.builder().flushInterval(Duration.ZERO))
        .hasMessage("Invalid flush interval: PT0S");
    assertThatThrownBy(() -> IngestServer.builder().maxConcurrentPuts(0))
        .hasMessage("Invalid max concurrent puts: 0");
    assertThatThrownBy(() -> IngestServer.builder().maxConcurrentPutsPerConnection(-1))
        .hasMessage("Invalid max concurrent puts per connection: -1");
    assertThatThrownBy(() -> IngestServer.builder().maxConcurrentPuts(2).maxConcurrentPuts(3))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("maxConcurrentPuts was already set to 2");
    assertThatThrownBy(() -> IngestServer.builder().flushBytes(5).flushBytes(6))
        .isInstanceOf(IllegalStateException.class).hasMessage("flushBytes was already set to 5");
    assertThatThrownBy(() -> IngestServer.builder().token("secret").token("other"))
        .isInstanceOf(IllegalStateException.class).hasMessage("token was already set");
  }

  @Test
  void checksSettingsAgainstEachOther() {
    assertThatThrownBy(() -> complete().maxBufferedBytes(1 << 20).maxBatchBytes(2 << 20)
            .flushBytes(1024).build())
        .hasMessage("Cannot build ingest server: maxBatchBytes 2097152 exceeds maxBufferedBytes 1048576");
    assertThatThrownBy(() -> complete().maxBufferedBytes(1 << 20).build())
        .hasMessage("Cannot build ingest server: flushBytes 8388608 exceeds maxBufferedBytes 1048576");
    assertThatThrownBy(() -> complete().maxConcurrentPuts(4).maxConcurrentPutsPerConnection(5)
            .build())
        .hasMessage("Cannot build ingest server: maxConcurrentPutsPerConnection 5 exceeds "
            + "maxConcurrentPuts 4");
    // The per-connection default (8) gives way to a lower total.
    assertThat(complete().maxConcurrentPuts(4).build()).isNotNull();
    assertThatThrownBy(() -> complete().putInitialBackoff(Duration.ofSeconds(10)).build())
        .hasMessage("Cannot build ingest server: putInitialBackoff PT10S exceeds putMaxBackoff PT5S");
  }

  @Test
  void unstartedServersCloseQuietly() {
    IngestServer server = complete().build();
    assertThatThrownBy(server::port).hasMessage("Cannot get port: server is not started");
    server.close();
    server.close();
  }
}
