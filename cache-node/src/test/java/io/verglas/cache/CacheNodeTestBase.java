package io.verglas.cache;

import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;

/**
 * Tests of one real cache node over a temp directory: {@link #t} starts before each test (and
 * before a subclass's own {@code @BeforeEach}) and stops after it.
 */
abstract class CacheNodeTestBase {
  @TempDir Path dir;
  TestingCacheNode t;

  @BeforeEach
  final void startCacheNode() {
    t = new TestingCacheNode(dir);
  }

  @AfterEach
  final void stopCacheNode() {
    t.close();
  }
}
