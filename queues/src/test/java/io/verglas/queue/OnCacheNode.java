package io.verglas.queue;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** A test class whose tests share one {@link QueueFixture}, started before and closed after. */
abstract class OnCacheNode {
  static QueueFixture fixture;

  @BeforeAll
  static void startNode() throws Exception {
    fixture = new QueueFixture();
  }

  @AfterAll
  static void stopNode() throws Exception {
    fixture.close();
  }
}
