package io.verglas.events.publish;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.slf4j.LoggerFactory;

/** Captures everything some loggers write (DEBUG and up) while open. */
public final class TestingLog implements AutoCloseable {
  private final ListAppender<ILoggingEvent> appender = new ListAppender<>();
  private final List<Logger> loggers;
  private final List<Level> levels;

  public TestingLog(Class<?>... classes) {
    appender.start();
    this.loggers = Arrays.stream(classes).map(c -> (Logger) LoggerFactory.getLogger(c)).toList();
    this.levels = loggers.stream().map(Logger::getLevel).toList();
    loggers.forEach(logger -> {
      logger.setLevel(Level.DEBUG);
      logger.addAppender(appender);
    });
  }

  /** The formatted messages logged at {@code level} or above. */
  public List<String> messages(Level level) {
    List<ILoggingEvent> events;
    synchronized (appender) { // appenders append under their own lock
      events = new ArrayList<>(appender.list);
    }
    return events.stream().filter(e -> e.getLevel().isGreaterOrEqual(level))
        .map(ILoggingEvent::getFormattedMessage).toList();
  }

  /** The WARN (and above) messages that contain {@code text}. */
  public List<String> warnings(String text) {
    return messages(Level.WARN).stream().filter(m -> m.contains(text)).toList();
  }

  @Override
  public void close() {
    for (int i = 0; i < loggers.size(); i++) {
      loggers.get(i).detachAppender(appender);
      loggers.get(i).setLevel(levels.get(i));
    }
    appender.stop();
  }
}
