import AdSimCommands

// adsim: everything is in AdSimCommands; this only hands it the command line.
await AdSim.main(arguments: Array(CommandLine.arguments.dropFirst()))
