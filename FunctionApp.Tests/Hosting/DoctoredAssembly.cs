using System.Reflection;
using Microsoft.CodeAnalysis;
using Microsoft.CodeAnalysis.CSharp;

namespace FunctionApp.Tests.Hosting;

/// <summary>Compiles a tiny real assembly with a given name and version (Roslyn, in memory) into a folder of a doctored copy.</summary>
public static class DoctoredAssembly
{
    /// <summary>Writes <c>&lt;assemblyName&gt;.dll</c> at <paramref name="version"/> into <paramref name="directory"/>, replacing any; <paramref name="source"/> is its code.</summary>
    public static string Write(string directory, string assemblyName, string version, string source = "")
    {
        var compilation = CSharpCompilation.Create(
            assemblyName,
            [CSharpSyntaxTree.ParseText($"[assembly: System.Reflection.AssemblyVersion(\"{version}\")]\n{source}")],
            [MetadataReference.CreateFromFile(typeof(object).Assembly.Location)],
            new CSharpCompilationOptions(OutputKind.DynamicallyLinkedLibrary));
        var path = Path.Combine(directory, assemblyName + ".dll");
        using (var file = File.Create(path))
        {
            var result = compilation.Emit(file);
            Assert.True(result.Success, string.Join(Environment.NewLine, result.Diagnostics));
        }

        Assert.Equal(new Version(version), AssemblyName.GetAssemblyName(path).Version);
        return path;
    }
}
