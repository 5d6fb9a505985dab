package io.verglas.cli;

import picocli.CommandLine;
import picocli.CommandLine.IExecutionExceptionHandler;
import picocli.CommandLine.ParseResult;

/**
 * Prints a command's failure as one clear line (the stack trace only with VERGLAS_DEBUG=1):
 * an operator needs the reason, not the frames.
 */
final class ErrorReporter implements IExecutionExceptionHandler {
  @Override
  public int handleExecutionException(Exception e, CommandLine cmd, ParseResult parsed) {
    cmd.getErr().println(cmd.getCommandSpec().qualifiedName() + ": " + message(e));
    if ("1".equals(System.getenv("VERGLAS_DEBUG"))) {
      e.printStackTrace(cmd.getErr());
    }
    return 1;
  }

  private static String message(Throwable e) {
    Throwable cause = e;
    while (cause.getMessage() == null && cause.getCause() != null) {
      cause = cause.getCause();
    }
    return cause.getMessage() == null ? cause.toString() : cause.getMessage();
  }
}
