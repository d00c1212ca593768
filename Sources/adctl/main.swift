import AdminCommands

// adctl: everything is in AdminCommands; this only hands it the command line.
await ADCtl.main(arguments: Array(CommandLine.arguments.dropFirst()))
