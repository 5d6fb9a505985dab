package io.verglas.materializer.source;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.verglas.materializer.store.S3WalStore;
import io.verglas.store.ObjectStoreEndpoint;
import io.verglas.wal.WalLayout;
import java.net.ServerSocket;
import java.net.URI;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * What a WAL listing that fails says: a warning, unless the job is stopping. The WAL store is an
 * S3 endpoint where nothing listens, so every listing fails as it does once the stack is gone.
 */
class WalEnumeratorShutdownTest {
  private static final WalLayout LAYOUT = WalLayout.defaults();
  private final Logger logger = (Logger) LoggerFactory.getLogger(WalEnumerator.class);
  private final ListAppender<ILoggingEvent> log = new ListAppender<>();
  private final TestingEnumeratorContext context = new TestingEnumeratorContext(1);
  private WalEnumerator enumerator;

  @BeforeEach
  void setUp() throws Exception {
    log.start();
    logger.setLevel(Level.DEBUG);
    logger.addAppender(log);
    int port;
    try (ServerSocket socket = new ServerSocket(0)) {
      port = socket.getLocalPort(); // closed again: nothing listens there
    }
    ObjectStoreEndpoint nowhere = new ObjectStoreEndpoint(URI.create("http://127.0.0.1:" + port),
        "us-east-1", "key", "secret", "wal");
    enumerator = new WalEnumerator(context, S3WalStore.open(nowhere, LAYOUT), LAYOUT, 1,
        WalEnumeratorState.empty());
    enumerator.start();
  }

  @AfterEach
  void tearDown() throws Exception {
    Thread.interrupted();
    logger.detachAppender(log);
    logger.setLevel(null);
    enumerator.close();
  }

  @Test
  void aListingAfterCloseLogsNoWarning() throws Exception {
    enumerator.close(); // the job stops while a round is under way
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
  void aFailedListingWarnsWithItsCause() {
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
