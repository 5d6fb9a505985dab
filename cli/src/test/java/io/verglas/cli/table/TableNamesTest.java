package io.verglas.cli.table;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class TableNamesTest {

  @Test
  void aNameHoldingADotIsWrittenInBackquotesAndPlainNamesKeepWorking() {
    assertThat(TableNames.parse("demo.`orders.v2`"))
        .isEqualTo(TableIdentifier.of(Namespace.of("demo"), "orders.v2"));
    assertThat(TableNames.parse("demo.orders.v2"))
        .isEqualTo(TableIdentifier.of(Namespace.of("demo", "orders"), "v2"));
    assertThat(TableNames.parse("demo.events")).isEqualTo(TableIdentifier.of("demo", "events"));
  }

  @Test
  void aNameWithoutNamespaceOrMalformedIsRefused() {
    assertThatThrownBy(() -> TableNames.parse("events")).hasMessageContaining("no namespace")
        .hasMessageContaining("NAMESPACE.TABLE");
    assertThatThrownBy(() -> TableNames.parse("`demo.events`"))
        .hasMessageContaining("no namespace");
    assertThatThrownBy(() -> TableNames.parse("demo.`orders")).hasMessageContaining("not closed");
    assertThatThrownBy(() -> TableNames.parse("demo..t")).hasMessageContaining("is empty");
  }

  @Test
  void aNewTableIsCheckedAgainstTheIdentifierRules() {
    assertThat(TableNames.parseNew("demo.`orders.v2`").name()).isEqualTo("orders.v2");
    assertThatThrownBy(() -> TableNames.parseNew("ns.a/b")).hasMessageContaining("(rule slash:");
    assertThatThrownBy(() -> TableNames.parseNew("`a.b`.t"))
        .hasMessageContaining("(rule dot-in-namespace:");
    assertThatThrownBy(() -> TableNames.parseNew("ns.`..`")).hasMessageContaining("dot-segment");
  }

  @Test
  void tableCreateRefusesABadNameBeforeItReachesAnyStack() {
    StringWriter err = new StringWriter();
    CommandLine command = new CommandLine(new CreateTableCommand())
        .setErr(new PrintWriter(err))
        .setExecutionExceptionHandler((e, cmd, parsed) -> {
          cmd.getErr().println(e.getMessage());
          return 1;
        });
    // No stack runs and no endpoints file exists: the name is refused before either is needed.
    int exit = command.execute("ns.a/b", "--columns", "id long",
        "--endpoints", "/nonexistent/endpoints.json");
    assertThat(exit).isEqualTo(1);
    assertThat(err.toString()).contains("Cannot create table 'ns.a/b': name 'a/b' contains '/'")
        .contains("(rule slash:");
  }
}
