package io.verglas.workers.schedule;

import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A test's own scheduler schema ({@link TestDatabase}) and a producer's {@link JobQueue} on it
 * with the default settings: made before each test, closed and dropped after it. Register it
 * with {@code @RegisterExtension}.
 */
final class QueueFixture implements BeforeEachCallback, AfterEachCallback {
  private TestDatabase db;
  private JobQueue producer;

  @Override
  public void beforeEach(ExtensionContext context) throws Exception {
    db = TestDatabase.create();
    producer = new JobQueue(db.database(), QueueSettings.defaults());
  }

  @Override
  public void afterEach(ExtensionContext context) throws Exception {
    try {
      producer.close();
    } finally {
      db.close();
    }
  }

  TestDatabase db() {
    return db;
  }

  Database database() {
    return db.database();
  }

  JobQueue producer() {
    return producer;
  }
}
