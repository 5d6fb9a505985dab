package io.verglas.cache.catalog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.verglas.cache.CacheNode;
import io.verglas.cache.origin.LocalDirectoryOrigin;
import java.nio.file.Path;
import java.time.Duration;
import org.apache.iceberg.inmemory.InMemoryCatalog;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RestCatalogConfigTest {
  private final InMemoryCatalog catalog = new InMemoryCatalog();

  @Test
  void theEndpointIsNeverOpen() {
    assertThatThrownBy(() -> RestCatalogConfig.builder(catalog, " "))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("catalog token");
    assertThatThrownBy(() -> RestCatalogConfig.builder(catalog, null))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void defaultsAndBounds() {
    RestCatalogConfig config = RestCatalogConfig.builder(catalog, "t").build();
    assertThat(config.loadCacheTtl()).isEqualTo(RestCatalogConfig.DEFAULT_LOAD_CACHE_TTL);
    assertThat(config.threads()).isEqualTo(RestCatalogConfig.DEFAULT_THREADS);
    assertThat(config.maxRequestBytes()).isEqualTo(RestCatalogConfig.DEFAULT_MAX_REQUEST_BYTES);
    assertThat(config.catalog().get()).isSameAs(catalog);
    assertThatThrownBy(() -> RestCatalogConfig.builder(catalog, "t").threads(0))
        .hasMessageContaining("Invalid catalog threads: 0");
    assertThatThrownBy(() -> RestCatalogConfig.builder(catalog, "t").loadCacheTtl(Duration.ofSeconds(-1)))
        .hasMessageContaining("Invalid load cache TTL: PT-1S");
    assertThatThrownBy(() -> RestCatalogConfig.builder(catalog, "t").maxRequestBytes(0))
        .hasMessageContaining("Invalid catalog request size limit: 0");
    assertThatThrownBy(() -> RestCatalogConfig.builder(catalog, "t").queueCapacity(1).queueCapacity(2))
        .isInstanceOf(IllegalStateException.class);
  }

  @Test
  void toStringNeverShowsTheToken() {
    assertThat(RestCatalogConfig.builder(catalog, "secret-token").build().toString())
        .doesNotContain("secret-token");
  }

  @Test
  void aNodeWithoutACatalogSaysSo(@TempDir Path dir) {
    try (LocalDirectoryOrigin origin = new LocalDirectoryOrigin(dir);
        CacheNode node = CacheNode.builder().allowAnonymous(true).origin(origin).build().start()) {
      assertThatThrownBy(node::catalogUri).isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("no catalog was configured");
    }
  }
}
