package io.verglas.cli.table;

import picocli.CommandLine.Command;

/** {@code verglas table}: create, list and describe tables. */
@Command(name = "table", mixinStandardHelpOptions = true,
    description = "Create, list and describe Verglas tables.",
    subcommands = {CreateTableCommand.class, ListTablesCommand.class, DescribeTableCommand.class})
public final class TableCommand {}
