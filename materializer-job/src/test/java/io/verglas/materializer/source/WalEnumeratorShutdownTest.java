package io.verglas.materializer.source;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.verglas.materializer.store.S3WalStore;
import io.verglas.materializer.testing.TestingS3;
import io.verglas.wal.WalLayout;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/** What a WAL listing that fails says: a warning, unless the job is stopping. */
class WalEnumeratorShutdownTest {
  private static final WalLayout LAYOUT = WalLayout.defaults();
  private final Logger logger = (Logger) LoggerFactory.getLogger(WalEnumerator.class);
  private final ListAppender<ILoggingEvent> log = new ListAppender<>();
  private final TestingEnumeratorContext context = new TestingEnumeratorContext(1);
  private TestingS3 s3;
  private WalEnumerator enumerator;

  @BeforeEach
  void setUp() throws Exception {
    log.start();
    logger.setLevel(Level.DEBUG);
    logger.addAppender(log);
    s3 = TestingS3.start("wal");
    enumerator = new WalEnumerator(context, S3WalStore.open(s3.endpoint(), LAYOUT), LAYOUT, 1,
        WalEnumeratorState.empty());
    enumerator.start();
  }

  @AfterEach
  void tearDown() throws Exception {
    Thread.interrupted();
    logger.detachAppender(log);
    logger.setLevel(null);
    enumerator.close();
    s3.close();
  }

  @Test
  void aListingAfterCloseLogsNoWarning() throws Exception {
    enumerator.close();
    s3.close(); // the stack stops: the round already under way cannot list
    context.runPeriodic();
    assertThat(messages(Level.WARN)).isEmpty();
    assertThat(messages(Level.DEBUG)).singleElement().asString()
        .startsWith("WAL listing under _wal/ stopped by shutdown: ");
  }

  @Test
  void anInterruptedListingLogsNoWarning() {
    Thread.currentThread().interrupt(); // the S3 client answers with AbortedException
    context.runPeriodic();
    assertThat(messages(Level.WARN)).isEmpty();
    assertThat(messages(Level.DEBUG)).singleElement().asString().contains("AbortedException");
  }

  @Test
  void aFailedListingWarnsWithItsCause() throws Exception {
    s3.close(); // nothing answers any more
    context.runPeriodic();
    assertThat(messages(Level.WARN)).singleElement().asString()
        .startsWith("Cannot list WAL segments under _wal/: ");
    assertThat(log.list.get(0).getThrowableProxy()).isNotNull();
  }

  private List<String> messages(Level level) {
    return log.list.stream().filter(e -> e.getLevel().isGreaterOrEqual(level))
        .map(ILoggingEvent::getFormattedMessage).toList();
  }
}
