using System.Collections.Immutable;
using System.Reflection.Emit;
using System.Reflection.Metadata;
using System.Reflection.Metadata.Ecma335;
using System.Reflection.PortableExecutable;

namespace FunctionApp.Tests.Architecture;

/// <summary>
/// The references from an assembly's own types to its other types and to other assemblies' types, read from its compiled metadata and IL with
/// System.Reflection.Metadata: base types, interfaces, field/method/property signatures, generic constraints,
/// attributes, locals and every type, method and field token in method bodies. Compiler-generated types (closures,
/// async state machines) count as their outermost declaring type, so a lambda's references belong to the type it is in.
/// </summary>
public sealed class AssemblyDependencies
{
    private static readonly Dictionary<short, OperandType> OperandTypes = typeof(OpCodes)
        .GetFields()
        .Select(f => (OpCode)f.GetValue(null)!)
        .ToDictionary(o => o.Value, o => o.OperandType);

    private readonly MetadataReader _reader;
    private readonly PEReader _pe;

    private AssemblyDependencies(PEReader pe)
    {
        _pe = pe;
        _reader = pe.GetMetadataReader();
    }

    /// <summary>
    /// Every (referencing type, referenced type) pair by full name, the referencing type one of the assembly's own and the
    /// referenced one either its own or another assembly's (so the hosts' uses of the core are seen).
    /// </summary>
    public static IReadOnlyList<(string From, string To)> Read(string assemblyPath)
    {
        using var stream = File.OpenRead(assemblyPath);
        using var pe = new PEReader(stream);
        return new AssemblyDependencies(pe).ReadAll();
    }

    /// <summary>The names of the assemblies an assembly references (its metadata's AssemblyRef table).</summary>
    public static IReadOnlyList<string> References(string assemblyPath)
    {
        using var stream = File.OpenRead(assemblyPath);
        using var pe = new PEReader(stream);
        var reader = pe.GetMetadataReader();
        return [.. reader.AssemblyReferences.Select(h => reader.GetString(reader.GetAssemblyReference(h).Name)).Order(StringComparer.Ordinal)];
    }

    private List<(string From, string To)> ReadAll()
    {
        var edges = new HashSet<(string, string)>();
        foreach (var handle in _reader.TypeDefinitions)
        {
            var from = FullName(Outermost(handle));
            var collector = new Collector(this);
            CollectType(handle, collector);
            foreach (var to in collector.Names)
            {
                if (to != from)
                {
                    edges.Add((from, to));
                }
            }
        }

        return [.. edges];
    }

    private void CollectType(TypeDefinitionHandle handle, Collector collector)
    {
        var type = _reader.GetTypeDefinition(handle);
        collector.Entity(type.BaseType);
        foreach (var implementation in type.GetInterfaceImplementations())
        {
            collector.Entity(_reader.GetInterfaceImplementation(implementation).Interface);
        }

        CollectAttributes(type.GetCustomAttributes(), collector);
        CollectConstraints(type.GetGenericParameters(), collector);
        foreach (var fieldHandle in type.GetFields())
        {
            var field = _reader.GetFieldDefinition(fieldHandle);
            field.DecodeSignature(collector, null);
            CollectAttributes(field.GetCustomAttributes(), collector);
        }

        foreach (var propertyHandle in type.GetProperties())
        {
            var property = _reader.GetPropertyDefinition(propertyHandle);
            property.DecodeSignature(collector, null);
            CollectAttributes(property.GetCustomAttributes(), collector);
        }

        foreach (var methodHandle in type.GetMethods())
        {
            CollectMethod(_reader.GetMethodDefinition(methodHandle), collector);
        }
    }

    private void CollectMethod(MethodDefinition method, Collector collector)
    {
        method.DecodeSignature(collector, null);
        CollectAttributes(method.GetCustomAttributes(), collector);
        CollectConstraints(method.GetGenericParameters(), collector);
        foreach (var parameter in method.GetParameters())
        {
            CollectAttributes(_reader.GetParameter(parameter).GetCustomAttributes(), collector);
        }

        if (method.RelativeVirtualAddress == 0)
        {
            return;
        }

        var body = _pe.GetMethodBody(method.RelativeVirtualAddress);
        if (!body.LocalSignature.IsNil)
        {
            _reader.GetStandaloneSignature(body.LocalSignature).DecodeLocalSignature(collector, null);
        }

        foreach (var region in body.ExceptionRegions)
        {
            collector.Entity(region.CatchType);
        }

        var il = body.GetILReader();
        while (il.RemainingBytes > 0)
        {
            short value = il.ReadByte();
            if (value == 0xFE)
            {
                value = unchecked((short)(0xFE00 | il.ReadByte()));
            }

            switch (OperandTypes[value])
            {
                case OperandType.InlineField:
                case OperandType.InlineMethod:
                case OperandType.InlineType:
                case OperandType.InlineTok:
                    collector.Entity(MetadataTokens.EntityHandle(il.ReadInt32()));
                    break;
                case OperandType.InlineSwitch:
                    var targets = il.ReadInt32(); // read before Offset: `Offset += 4 * ReadInt32()` would add to the old offset
                    il.Offset += 4 * targets;
                    break;
                case OperandType.InlineI8:
                case OperandType.InlineR:
                    il.Offset += 8;
                    break;
                case OperandType.InlineBrTarget:
                case OperandType.InlineI:
                case OperandType.InlineSig:
                case OperandType.InlineString:
                case OperandType.ShortInlineR:
                    il.Offset += 4;
                    break;
                case OperandType.InlineVar:
                    il.Offset += 2;
                    break;
                case OperandType.ShortInlineBrTarget:
                case OperandType.ShortInlineI:
                case OperandType.ShortInlineVar:
                    il.Offset += 1;
                    break;
                default:
                    break;
            }
        }
    }

    private void CollectAttributes(CustomAttributeHandleCollection attributes, Collector collector)
    {
        foreach (var attribute in attributes)
        {
            collector.Entity(_reader.GetCustomAttribute(attribute).Constructor);
        }
    }

    private void CollectConstraints(GenericParameterHandleCollection parameters, Collector collector)
    {
        foreach (var parameter in parameters)
        {
            foreach (var constraint in _reader.GetGenericParameter(parameter).GetConstraints())
            {
                collector.Entity(_reader.GetGenericParameterConstraint(constraint).Type);
            }
        }
    }

    private TypeDefinitionHandle Outermost(TypeDefinitionHandle handle)
    {
        var declaring = _reader.GetTypeDefinition(handle).GetDeclaringType();
        return declaring.IsNil ? handle : Outermost(declaring);
    }

    private string FullName(TypeDefinitionHandle handle)
    {
        var type = _reader.GetTypeDefinition(handle);
        var ns = _reader.GetString(type.Namespace);
        var name = _reader.GetString(type.Name);
        return ns.Length == 0 ? name : ns + "." + name;
    }

    /// <summary>Collects the types, the assembly's own and other assemblies', that a signature or token mentions (outermost declaring type's name).</summary>
    private sealed class Collector(AssemblyDependencies owner) : ISignatureTypeProvider<bool, object?>
    {
        private readonly MetadataReader _reader = owner._reader;

        public HashSet<string> Names { get; } = new(StringComparer.Ordinal);

        private bool Add(TypeDefinitionHandle handle) => Names.Add(owner.FullName(owner.Outermost(handle)));

        private bool Add(TypeReferenceHandle handle)
        {
            var reference = _reader.GetTypeReference(handle);
            while (reference.ResolutionScope.Kind == HandleKind.TypeReference)
            {
                reference = _reader.GetTypeReference((TypeReferenceHandle)reference.ResolutionScope);
            }

            var ns = _reader.GetString(reference.Namespace);
            var name = _reader.GetString(reference.Name);
            return Names.Add(ns.Length == 0 ? name : ns + "." + name);
        }

        public void Entity(EntityHandle handle)
        {
            if (handle.IsNil)
            {
                return;
            }

            switch (handle.Kind)
            {
                case HandleKind.TypeDefinition:
                    Add((TypeDefinitionHandle)handle);
                    break;
                case HandleKind.TypeReference:
                    Add((TypeReferenceHandle)handle);
                    break;
                case HandleKind.TypeSpecification:
                    _reader.GetTypeSpecification((TypeSpecificationHandle)handle).DecodeSignature(this, null);
                    break;
                case HandleKind.MethodDefinition:
                    var method = _reader.GetMethodDefinition((MethodDefinitionHandle)handle);
                    Add(method.GetDeclaringType());
                    method.DecodeSignature(this, null);
                    break;
                case HandleKind.FieldDefinition:
                    Add(_reader.GetFieldDefinition((FieldDefinitionHandle)handle).GetDeclaringType());
                    break;
                case HandleKind.MemberReference:
                    var member = _reader.GetMemberReference((MemberReferenceHandle)handle);
                    Entity(member.Parent);
                    if (member.GetKind() == MemberReferenceKind.Method)
                    {
                        member.DecodeMethodSignature(this, null);
                    }
                    else
                    {
                        member.DecodeFieldSignature(this, null);
                    }

                    break;
                case HandleKind.MethodSpecification:
                    var specification = _reader.GetMethodSpecification((MethodSpecificationHandle)handle);
                    Entity(specification.Method);
                    specification.DecodeSignature(this, null);
                    break;
                default:
                    break;
            }
        }

        public bool GetTypeFromDefinition(MetadataReader reader, TypeDefinitionHandle handle, byte rawTypeKind) => Add(handle);

        public bool GetTypeFromReference(MetadataReader reader, TypeReferenceHandle handle, byte rawTypeKind) => Add(handle);

        public bool GetTypeFromSpecification(MetadataReader reader, object? genericContext, TypeSpecificationHandle handle, byte rawTypeKind)
        {
            Entity(handle);
            return false;
        }

        public bool GetSZArrayType(bool elementType) => false;

        public bool GetArrayType(bool elementType, ArrayShape shape) => false;

        public bool GetByReferenceType(bool elementType) => false;

        public bool GetPointerType(bool elementType) => false;

        public bool GetPinnedType(bool elementType) => false;

        public bool GetGenericInstantiation(bool genericType, ImmutableArray<bool> typeArguments) => false;

        public bool GetGenericMethodParameter(object? genericContext, int index) => false;

        public bool GetGenericTypeParameter(object? genericContext, int index) => false;

        public bool GetFunctionPointerType(MethodSignature<bool> signature) => false;

        public bool GetModifiedType(bool modifier, bool unmodifiedType, bool isRequired) => false;

        public bool GetPrimitiveType(PrimitiveTypeCode typeCode) => false;
    }
}
